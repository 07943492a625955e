import { assert, type Case } from "skillgym";

const suite: Case[] = [
  {
    id: "should-not-trigger-csv-analyzer",
    prompt: "Analyze this CSV file and tell me the top 5 months by revenue",
    assert(report) {
      assert.skills.notHas(report, "csv-analyzer");
    },
  },
];

export default suite;
