import { assert, type Case } from "skillgym";

const suite: Case[] = [
  {
    id: "select-bench-for-eval-run",
    prompt: "Task: I have a YAML eval file and I need to run it against an LLM target\nand see the pass rate. Which skill?\n",
    assert(report) {
      assert.output.includes(report, "agentv-bench");
    },
  },
  {
    id: "select-eval-writer-for-create",
    prompt: "Task: I want to author a brand-new `.eval.yaml` file for my custom skill\nfrom scratch. Which skill should I load?\n",
    assert(report) {
      assert.output.includes(report, "agentv-eval-writer");
    },
  },
  {
    id: "select-eval-review-for-audit",
    prompt: "Task: I already wrote my `.eval.yaml` and want a second pair of eyes to\naudit it for missing assertions, bad rubric phrasing, and structural\nissues. Which skill?\n",
    assert(report) {
      assert.output.includes(report, "agentv-eval-review");
    },
  },
  {
    id: "select-governance-for-authoring",
    prompt: "Task: I'm building a red-team eval and need to add a `governance:` block\nwith OWASP and MITRE coverage metadata. Which skill?\n",
    assert(report) {
      assert.output.includes(report, "agentv-governance");
    },
  },
  {
    id: "select-governance-for-lint",
    prompt: "Task: I already wrote the `governance:` block in my `.eval.yaml` and want\nto lint it against the supported vocabulary before CI runs. Which skill?\n",
    assert(report) {
      assert.output.includes(report, "agentv-governance");
    },
  },
  {
    id: "select-trace-analyst-for-debug",
    prompt: "Task: My eval run produced an `index.jsonl` with several failing rows.\nI want to dig into the per-test traces and figure out what went wrong.\nWhich skill?\n",
    assert(report) {
      assert.output.includes(report, "agentv-trace-analyst");
    },
  },
  {
    id: "select-distinguishes-bench-vs-writer",
    prompt: "Task: I'm starting a new eval project. I'll need to author the `.eval.yaml`\nfrom scratch *and* run it against a target. Which skill or skills?\n",
    assert(report) {
      assert.output.includes(report, "agentv-eval-writer");
      assert.output.includes(report, "agentv-bench");
    },
  },
  {
    id: "select-no-false-positive",
    prompt: "Task: I want to deploy my Node.js app to a Kubernetes cluster. Which\nagentv skill should I load?\n",
    assert(report) {
      assert.equal(report.finalOutput.trim(), "none");
    },
  },
];

export default suite;
