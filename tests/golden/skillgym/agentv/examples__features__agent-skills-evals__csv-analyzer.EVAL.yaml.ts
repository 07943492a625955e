import { assert, type Case } from "skillgym";

const suite: Case[] = [
  {
    id: "csv-top-months",
    prompt: "[file: evals/files/sales.csv]\n\nAnalyze this CSV data. Use the csv-analyzer skill to find the top 3 months by revenue. Make sure to apply the seasonal weighting formula from the skill.",
    assert(report) {
      assert.skills.has(report, "csv-analyzer");
    },
  },
  {
    id: "irrelevant-query",
    prompt: "What time is it?",
    assert(report) {
      assert.skills.notHas(report, "csv-analyzer");
    },
  },
];

export default suite;
