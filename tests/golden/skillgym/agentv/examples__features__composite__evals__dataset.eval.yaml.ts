import { assert, type Case } from "skillgym";

const suite: Case[] = [
  {
    id: "weighted-average-example",
    prompt: "Write a concise but informative summary of machine learning.",
    assert() {},
  },
  {
    id: "code-grader-safety-gate",
    prompt: "Explain quantum computing in simple terms.",
    assert() {},
  },
  {
    id: "llm-grader-conflict-resolution",
    prompt: "Write a product description that is both brief and comprehensive.",
    assert() {},
  },
  {
    id: "nested-composite",
    prompt: "Explain the difference between supervised and unsupervised learning.",
    assert() {},
  },
];

export default suite;
