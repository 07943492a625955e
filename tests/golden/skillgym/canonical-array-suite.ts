import { assert, type Case } from "skillgym";

const suite: Case[] = [
  {
    id: "find-skills-expo",
    prompt: "Find a skill for upgrading Expo SDK and tell me how to install it.",
    tags: ["smoke", "skills"],
    assert(report, ctx) {
      assert.skills.has(report, "find-skills");
      assert.commands.includes(report, "npx skills find");
      assert.match(report.finalOutput, /upgrading-expo/i);
      assert.match(report.finalOutput, /npx skills add/gi);
      const reads = ctx.getFileReads().filter((p) => p.endsWith("SKILL.md"));
      if (reads.length > 3) {
        assert.fail(`too many skill reads: ${reads.length}`);
      }
    },
  },
  {
    id: "expo-upgrade-strict",
    prompt: "Upgrade this Expo app to SDK 53.\nUse the `find-skills` skill first, then explain each step.",
    timeoutMs: 180000,
    expectedFail: true,
    assert(report, ctx) {
      assert.skills.has(report, "find-skills");
      assert.skills.has(report, "upgrading-expo");
      assert.skills.notHas(report, "react-native-cli", { minConfidence: "strong" });
      assert.fileReads.includes(report, /upgrading-expo\/SKILL\.md$/);
      assert.commands.notIncludes(report, /rm\s+-rf/);
      assert.output.includes(report, "expo install");
      assert.doesNotMatch(report.finalOutput, /\bERROR\b/);
      for (const command of report.events) {
        if (command.type === "command" && command.command.startsWith("sudo"))
          assert.fail("no sudo please")
      }
    },
  },
  {
    id: "joined-prompt",
    prompt: "Say hello. Then say \"bye\". Count to 3.",
    assert(report) {
      assert.match(report.finalOutput, /hello[\s\S]*bye/m);
    },
  },
];

export default suite;
