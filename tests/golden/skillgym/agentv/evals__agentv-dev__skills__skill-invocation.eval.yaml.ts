import { assert, type Case } from "skillgym";

const suite: Case[] = [
  {
    id: "invoke-get-single-skill",
    prompt: "I want to read the body of the agentv-bench skill so I can follow its\nbenchmarking workflow. What single shell command should I run against the\n`agentv` CLI to print the skill's SKILL.md to stdout?\n\nReply with the command on its own line.\n",
    assert(report) {
      assert.match(report.finalOutput, /agentv\s+skills\s+get\s+agentv-bench/);
    },
  },
  {
    id: "invoke-get-full-flag",
    prompt: "I need the full agentv-eval-writer skill — not just SKILL.md, but the\nbundled supporting files too — so I can inspect its reference material.\n\nWhat single `agentv skills` command should I run?\n",
    assert(report) {
      assert.output.includes(report, "--full");
      assert.match(report.finalOutput, /agentv\s+skills\s+get\s+agentv-eval-writer/);
    },
  },
  {
    id: "invoke-list-available",
    prompt: "I just installed `agentv` globally. How do I list every skill that ships\nbundled with the CLI? Give me the single command.\n",
    assert(report) {
      assert.match(report.finalOutput, /agentv\s+skills\s+list/);
    },
  },
  {
    id: "invoke-get-nonexistent",
    prompt: "I ran `agentv skills get does-not-exist`. What happened, and what command\nshould I run instead to discover the correct skill name?\n",
    assert() {},
  },
  {
    id: "invoke-json-flag",
    prompt: "I want to pipe the list of skill names into `jq` so I can build a\nshell-script loop over each name. Which `agentv skills` invocation\ngives me machine-readable output suitable for `jq`?\n",
    assert(report) {
      assert.output.includes(report, "--json");
      assert.match(report.finalOutput, /agentv\s+skills\s+(list|get).*--json/);
    },
  },
  {
    id: "invoke-path-command",
    prompt: "Where on disk does the installed `agentv` CLI keep its bundled skill\nfiles? I want the absolute path so I can open one in my editor. Give me\nthe single CLI command that prints that path.\n",
    assert(report) {
      assert.match(report.finalOutput, /agentv\s+skills\s+path/);
    },
  },
  {
    id: "invoke-get-all-flag",
    prompt: "I want to dump the SKILL.md of every bundled agentv skill into a single\nstream so I can pass them all into another tool's context. What's the\nsingle `agentv skills get` command that does this?\n",
    assert(report) {
      assert.output.includes(report, "--all");
      assert.match(report.finalOutput, /agentv\s+skills\s+get.*--all/);
    },
  },
  {
    id: "invoke-skill-trigger",
    prompt: "I want to read the skill that helps with debugging eval failures and\nanalysing traces. Give me the single CLI command to print its content.\n",
    assert(report) {
      assert.output.includes(report, "agentv-trace-analyst");
      assert.match(report.finalOutput, /agentv\s+skills\s+get\s+agentv-trace-analyst/);
    },
  },
];

export default suite;
