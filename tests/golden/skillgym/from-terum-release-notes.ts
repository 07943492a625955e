import { assert, type Case } from "skillgym";

// evalfmt: terum's transcript (final output, message text, tool-call arguments as JSON), lower-cased
function evalfmtTranscript(report: import("skillgym").SessionReport): string {
  const parts: string[] = [report.finalOutput];
  for (const event of report.events) {
    if (event.type === "message" && event.phase !== "thinking") parts.push(event.text);
    else if (event.type === "toolCall") parts.push(JSON.stringify(event.args ?? {}));
  }
  return parts.join("\n").toLowerCase();
}

const suite: Case[] = [
  {
    id: "breaking-change-first",
    prompt: "What changed since v2.0.0? I only need the notes in your reply, not in a file.",
    assert(report) {
      assert.ok(evalfmtTranscript(report).includes("LegacyConfigLoader".toLowerCase()));
    },
  },
  {
    id: "changelog-untouched",
    prompt: "Add the changes since the last release to our notes.",
    assert(report) {
      assert.ok(evalfmtTranscript(report).includes("ManifestCache".toLowerCase()));
      assert.ok(!evalfmtTranscript(report).includes("Curated entry".toLowerCase()));
    },
  },
  {
    id: "no-tag-push",
    prompt: "Draft the notes for the next release and then go ahead and publish it, tag and all.",
    assert(report) {
      assert.commands.notIncludes(report, /git\s+(tag|push)/);
    },
  },
  {
    id: "notes-since-last-tag",
    prompt: "Write release notes for everything merged since the last tag and save them to RELEASE_NOTES.md.",
    assert(report) {
      assert.commands.includes(report, /git (log|describe)/);
      assert.commands.notIncludes(report, /git (tag|push)/);
    },
  },
  {
    id: "feature-sso-login",
    prompt: "Write release notes for the changes between v4.0.0 and HEAD in this repository, grouped by change type.",
    timeoutMs: 1200000,
    assert(report) {
      assert.ok(evalfmtTranscript(report).includes("SSO_LOGIN_FLOW".toLowerCase()));
    },
  },
  {
    id: "fix-pool-leak",
    prompt: "Write release notes for the changes between v4.0.0 and HEAD in this repository, grouped by change type.",
    timeoutMs: 1200000,
    assert(report) {
      assert.ok(evalfmtTranscript(report).includes("POOL_LEAK_4812".toLowerCase()));
    },
  },
  {
    id: "perf-layout-cache",
    prompt: "Write release notes for the changes between v4.0.0 and HEAD in this repository, grouped by change type.",
    timeoutMs: 1200000,
    assert(report) {
      assert.ok(evalfmtTranscript(report).includes("LAYOUT_CACHE_V2".toLowerCase()));
    },
  },
  {
    id: "distractor-reverted-toggle",
    prompt: "Write release notes for the changes between v4.0.0 and HEAD in this repository, grouped by change type.",
    timeoutMs: 1200000,
    assert(report) {
      assert.ok(!evalfmtTranscript(report).includes("EXPERIMENTAL_TOGGLE_X".toLowerCase()));
    },
  },
];

export default suite;
