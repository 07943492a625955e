import { assert, type Case } from "skillgym";

const suite: Case[] = [
  {
    id: "contains-any-greeting",
    prompt: "Greet the user warmly. Start with Hello or Hi.",
    assert() {},
  },
  {
    id: "contains-all-fields",
    prompt: "Confirm my details: name is Alice, email is alice@example.com",
    assert() {},
  },
  {
    id: "icontains-keyword",
    prompt: "Report the system status. Mention whether there are any errors.",
    assert(report) {
      assert.match(report.finalOutput, /error/i);
    },
  },
  {
    id: "icontains-any-missing-input",
    prompt: "Process this customs declaration. Country: BE. No rule codes provided.",
    assert() {},
  },
  {
    id: "icontains-all-required-fields",
    prompt: "What fields are needed for a customs entry?",
    assert() {},
  },
  {
    id: "starts-with-greeting",
    prompt: "Write a formal letter opening. Start with 'Dear Sir/Madam'.",
    assert(report) {
      assert.match(report.finalOutput, /^Dear/);
    },
  },
  {
    id: "ends-with-sign-off",
    prompt: "Write a brief thank you note. End your response with exactly 'Best regards'",
    assert(report) {
      assert.match(report.finalOutput, /Best regards$/);
    },
  },
  {
    id: "regex-case-insensitive",
    prompt: "Provide a support email address for contacting the team.",
    assert(report) {
      assert.match(report.finalOutput, /[a-z]+@[a-z]+\.[a-z]+/i);
    },
  },
  {
    id: "negate-contains-any",
    prompt: "Describe the advantages of cloud computing. Do not mention any company names.",
    assert() {},
  },
  {
    id: "required-inputs-recipe",
    prompt: "Process customs entry for country BE. No other data provided.",
    assert() {},
  },
];

export default suite;
