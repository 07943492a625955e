import { assert, type Case } from "skillgym";

const suite: Case[] = [
  {
    id: "code-review-javascript",
    prompt: "Please review this JavaScript function:\n\n```javascript\nfunction calculateTotal(items) {\n  let total = 0;\n  for (let i = 0; i < 0; i++) {\n    total += items[i].price * items[i].quantity;\n  }\n  return total;\n}\n```\n\n[file: javascript.instructions.md]",
    assert() {},
  },
  {
    id: "code-gen-python-comprehensive",
    prompt: "Create a Python function that:\n1. Takes a list of integers\n2. Returns the second largest number\n3. Handles edge cases (empty list, single item, duplicates)\n4. Raises appropriate exceptions for invalid input\n\n[file: python.instructions.md]",
    assert() {},
  },
  {
    id: "feature-proposal-brainstorm",
    prompt: "We're developing a mobile fitness app and need fresh feature ideas that would differentiate us from competitors.\nOur target users are busy professionals aged 25-45 who struggle to maintain consistent workout routines.\n\nPlease brainstorm 3-5 innovative features we should consider building.",
    assert() {},
  },
  {
    id: "coding-multiturn-debug-session",
    prompt: "I'm getting an off-by-one error in this function, but I can't see why:\n\n```python\ndef get_items(items):\n    result = []\n    for i in range(len(items) - 1):\n        result.append(items[i])\n    return result\n```\n\nSometimes the last element is missing. Can you help debug this?\n\nFor `[1, 2, 3, 4]` I expect `[1, 2, 3, 4]`, but I get `[1, 2, 3]`.",
    assert() {},
  },
  {
    id: "shorthand-string-example",
    prompt: "What is 2+2?",
    assert() {},
  },
  {
    id: "shorthand-structured-output",
    prompt: "Analyze transaction ID 12345 for fraud risk",
    assert() {},
  },
  {
    id: "shorthand-array-syntax",
    prompt: "Hello!",
    assert() {},
  },
];

export default suite;
