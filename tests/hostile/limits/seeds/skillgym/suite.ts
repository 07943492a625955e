import { assert, type Case } from "skillgym";

// hostile seed: a skillgym suite using the helpers evalfmt reads
const SKILL = "release-notes";

const suite: Case[] = [
  {
    id: "notes-since-tag",
    prompt: "Write release notes since v1.4.0.",
    tags: ["smoke"],
    timeoutMs: 120_000,
    async assert(report, ctx) {
      assert.skills.has(report, SKILL);
      assert.commands.includes(report, /git (log|describe)/);
      assert.commands.notIncludes(report, "git push");
      assert.fileReads.includes(report, /SKILL\.md$/);
      assert.match(report.finalOutput, /breaking/i);
      assert.output.includes(report, "LegacyConfigLoader");
    },
  },
  {
    id: "commit-staged",
    prompt: `Commit my staged changes.`,
    expectedFail: true,
    assert(report) {
      assert.skills.notHas(report, SKILL);
    },
  },
];

export default suite;
