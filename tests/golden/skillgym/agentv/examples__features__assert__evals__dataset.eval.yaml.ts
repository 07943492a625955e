import { assert, type Case } from "skillgym";

const suite: Case[] = [
  {
    id: "contains-check",
    prompt: "Say hello world",
    assert(report) {
      assert.output.includes(report, "Hello");
      assert.match(report.finalOutput, /[Hh]ello/);
    },
  },
  {
    id: "json-response",
    prompt: "Return a JSON object with fields: status set to \"ok\" and code set to 200.",
    assert(report) {
      assert.doesNotThrow(() => JSON.parse(report.finalOutput));
      assert.output.includes(report, "\"status\"");
      assert.output.includes(report, "\"ok\"");
    },
  },
  {
    id: "regex-check",
    prompt: "Greet me with exactly one of: 'Good morning', 'Good afternoon', or 'Good evening'. Start your response with that greeting.",
    assert(report) {
      assert.match(report.finalOutput, /Good (morning|afternoon|evening)/);
    },
  },
  {
    id: "equals-check",
    prompt: "What is 2 + 2?",
    assert(report) {
      assert.equal(report.finalOutput.trim(), "4");
    },
  },
];

export default suite;
