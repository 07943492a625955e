import { assert, type Case } from "skillgym";

const suite: Case[] = [
  {
    id: "should-trigger-direct-request",
    prompt: "How do I deploy payments-api to production?",
    assert(report) {
      assert.skills.has(report, "acme-deploy");
    },
  },
  {
    id: "should-trigger-casual-phrasing",
    prompt: "I need to roll back user-service in staging, what's the Acme deploy procedure for that?",
    assert(report) {
      assert.skills.has(report, "acme-deploy");
    },
  },
  {
    id: "should-not-trigger-unrelated",
    prompt: "What time is it in Tokyo right now?",
    assert(report) {
      assert.skills.notHas(report, "acme-deploy");
    },
  },
  {
    id: "should-not-trigger-near-miss",
    prompt: "Write a Python function that parses JSON logs and extracts error messages",
    assert(report) {
      assert.skills.notHas(report, "acme-deploy");
    },
  },
];

export default suite;
