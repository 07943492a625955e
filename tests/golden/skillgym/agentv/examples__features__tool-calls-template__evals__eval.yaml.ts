import { assert, type Case } from "skillgym";

const suite: Case[] = [
  {
    id: "deploy-skill-triggered",
    prompt: "How do I deploy payments-api to production?",
    assert() {},
  },
  {
    id: "rollback-skill-triggered",
    prompt: "I need to roll back user-service in staging, what's the procedure?",
    assert() {},
  },
  {
    id: "no-skill-for-unrelated",
    prompt: "Write a Python function that parses JSON logs and extracts error messages.",
    assert() {},
  },
];

export default suite;
