import { assert, type Case } from "skillgym";

const suite: Case[] = [
  {
    id: "simple-thresholds-pass",
    prompt: "Hello, this is a simple question.",
    assert() {},
  },
  {
    id: "comprehensive-thresholds",
    prompt: "Hello, give me a simple response.",
    assert() {},
  },
  {
    id: "research-with-metrics",
    prompt: "Research and analyze the topic of machine learning.",
    assert() {},
  },
  {
    id: "exploration-ratio-check",
    prompt: "Implement a small code improvement based on the existing file.",
    assert() {},
  },
  {
    id: "cost-budget-check",
    prompt: "Generate a brief summary.",
    assert() {},
  },
  {
    id: "hybrid-evaluation",
    prompt: "Process the data efficiently.",
    assert() {},
  },
];

export default suite;
