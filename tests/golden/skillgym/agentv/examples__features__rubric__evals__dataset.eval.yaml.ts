import { assert, type Case } from "skillgym";

const suite: Case[] = [
  {
    id: "code-explanation-simple",
    prompt: "Explain how the quicksort algorithm works",
    assert() {},
  },
  {
    id: "technical-writing-detailed",
    prompt: "Write a guide explaining HTTP status codes",
    assert() {},
  },
  {
    id: "code-quality-multi-eval",
    prompt: "Write a Python function to validate email addresses",
    assert() {},
  },
  {
    id: "summary-task",
    prompt: "Summarize this article:\n\nClimate change is accelerating faster than predicted. Recent studies show\nArctic ice melting at unprecedented rates, sea levels rising, and extreme\nweather events becoming more frequent. Scientists urge immediate action to\nreduce carbon emissions and transition to renewable energy sources.",
    assert() {},
  },
  {
    id: "summary-multi-criteria-score-ranges-proposed",
    prompt: "Summarize this article in under 50 words:\n\nClimate change is accelerating faster than predicted. Recent studies show\nArctic ice melting at unprecedented rates, sea levels rising, and extreme\nweather events becoming more frequent. Scientists urge immediate action to\nreduce carbon emissions and transition to renewable energy sources.",
    assert() {},
  },
];

export default suite;
