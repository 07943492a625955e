import { assert, type Case } from "skillgym";

const suite: Case[] = [
  {
    id: "any-order-pass",
    prompt: "Research the key differences between REST and GraphQL APIs.",
    assert() {},
  },
  {
    id: "in-order-pass",
    prompt: "Process the customer data from the API endpoint.",
    assert() {},
  },
  {
    id: "exact-auth-flow",
    prompt: "Authenticate the user with provided credentials.",
    assert() {},
  },
  {
    id: "metrics-check",
    prompt: "What are the current system metrics for CPU and memory?",
    assert() {},
  },
  {
    id: "partial-match",
    prompt: "Search for information and generate a report.",
    assert() {},
  },
  {
    id: "exact-args-match",
    prompt: "What's the weather like in Paris?",
    assert() {},
  },
  {
    id: "skip-args-validation",
    prompt: "Load customer data, normalize it, and save",
    assert() {},
  },
  {
    id: "superset-mode",
    prompt: "Research and analyze the data.",
    assert() {},
  },
  {
    id: "subset-mode",
    prompt: "Look up the current system status.",
    assert() {},
  },
  {
    id: "mixed-args-match",
    prompt: "Process the customer data from the API endpoint.",
    assert() {},
  },
  {
    id: "field-list-match",
    prompt: "Process the customer data from the API endpoint.",
    assert() {},
  },
];

export default suite;
