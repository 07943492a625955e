import { assert, type Case } from "skillgym";

const suite: Case[] = [
  {
    id: "capital-of-france",
    prompt: "What is the capital of France? Answer in one concise sentence.",
    assert(report) {
      assert.output.includes(report, "Paris");
    },
  },
  {
    id: "largest-planet",
    prompt: "What is the largest planet in our solar system? Answer briefly.",
    assert(report) {
      assert.output.includes(report, "Jupiter");
    },
  },
];

export default suite;
