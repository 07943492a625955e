import { assert, type Case } from "skillgym";

const suite: Case[] = [
  {
    id: "support-context-retention",
    prompt: "Hi, my name is Sarah. I placed an order last week and it still hasn't arrived.\nMy order number is #98765.\n\nYes please. I really need it by Friday - it's a birthday gift for my daughter.\n\nThe express shipping sounds great. Also, can you add gift wrapping?",
    assert(report) {
      assert.output.includes(report, "#98765");
    },
  },
  {
    id: "support-troubleshooting-flow",
    prompt: "My WiFi keeps dropping every 10 minutes. I already restarted my router\ntwice today. I'm not very tech-savvy so please keep it simple.\n\nIt blinks orange for a few seconds then goes back to green.\n\nOK I did that. What if it happens again?",
    assert() {},
  },
];

export default suite;
