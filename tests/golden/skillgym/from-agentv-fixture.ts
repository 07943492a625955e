import { assert, type Case } from "skillgym";

const suite: Case[] = [
  {
    id: "notes-since-tag",
    prompt: "Write release notes for everything since v1.4.0.",
    assert(report) {
      assert.skills.has(report, "release-notes");
    },
  },
  {
    id: "commit-staged",
    prompt: "Commit my staged changes with a good message.",
    assert(report) {
      assert.skills.has(report, "commit-message");
      assert.skills.notHas(report, "release-notes");
    },
  },
  {
    id: "review-before-commit",
    prompt: "Review my uncommitted diff for bugs before I commit.",
    assert(report) {
      assert.skills.has(report, "code-review");
      assert.match(report.finalOutput, /diff/i);
    },
  },
  {
    id: "unrelated-question",
    prompt: "What time is it in Tokyo?",
    assert(report) {
      assert.skills.notHas(report, "release-notes");
      assert.skills.notHas(report, "commit-message");
    },
  },
  {
    id: "plain-answer",
    prompt: "Explain what a git tag is in one sentence.",
    assert(report) {
      assert.output.includes(report, "tag");
    },
  },
];

export default suite;
