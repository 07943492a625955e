import { assert, type Case } from "skillgym";

const suite: Case[] = [
  {
    id: "detect-missing-eval",
    prompt: "Review the deploy-auto plugin in this repo for completeness.\nCheck that every skill has a corresponding eval file.\n",
    assert(report) {
      assert.skills.has(report, "agent-plugin-review");
      assert.output.includes(report, "deploy-rollback");
    },
  },
  {
    id: "detect-eval-naming",
    prompt: "Review the eval files under evals/deploy-auto/ for naming convention issues.\n",
    assert(report) {
      assert.output.includes(report, ".eval.yaml");
    },
  },
  {
    id: "detect-missing-assertions",
    prompt: "Review evals/deploy-auto/deploy-plan.yaml for eval quality issues.\nCheck assertion coverage and expected_output format.\n",
    assert() {},
  },
  {
    id: "detect-relative-file-paths",
    prompt: "Review evals/deploy-auto/deploy-plan.yaml for file path formatting issues.\n",
    assert() {},
  },
  {
    id: "detect-repeated-inputs",
    prompt: "Review evals/deploy-auto/deploy-plan.yaml for structural improvements.\nLook at how inputs are organized across test cases.\n",
    assert() {},
  },
  {
    id: "detect-missing-hard-gates",
    prompt: "Review the deploy-auto plugin's workflow architecture.\nCheck whether phases enforce prerequisites before proceeding.\n",
    assert() {},
  },
  {
    id: "detect-factual-contradiction",
    prompt: "Review evals/deploy-auto/deploy-execute.eval.yaml for factual accuracy.\nCross-check expected outputs against what the skills actually document.\n",
    assert() {},
  },
  {
    id: "detect-nonexistent-command-reference",
    prompt: "Review plugins/deploy-auto/skills/deploy-plan/SKILL.md for cross-reference issues.\nCheck that referenced commands and skills actually exist.\n",
    assert() {},
  },
  {
    id: "detect-hardcoded-paths",
    prompt: "Review plugins/deploy-auto/skills/deploy-execute/SKILL.md for portability issues.\n",
    assert() {},
  },
];

export default suite;
