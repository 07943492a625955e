import { assert, type Case } from "skillgym";

const suite: Case[] = [
  {
    id: "invoice-001",
    prompt: "[file: ../fixtures/invoice-001.json]\n\nExtract all structured data from this commercial shipping invoice.\nReturn a JSON object with invoice header, party details, line items, and totals.\n",
    assert() {},
  },
  {
    id: "invoice-002",
    prompt: "[file: ../fixtures/invoice-002.json]\n\nExtract invoice header and party names.",
    assert() {},
  },
  {
    id: "invoice-003",
    prompt: "[file: ../fixtures/invoice-003.json]\n\nExtract invoice totals.",
    assert() {},
  },
  {
    id: "invoice-004",
    prompt: "[file: ../fixtures/invoice-004.json]\n\nExtract invoice data (incomplete extraction).",
    assert() {},
  },
  {
    id: "invoice-005",
    prompt: "[file: ../fixtures/invoice-005.json]\n\nExtract first two line items from invoice.",
    assert() {},
  },
  {
    id: "invoice-006",
    prompt: "[file: ../fixtures/invoice-006.json]\n\nExtract line items from invoice (may be reordered).",
    assert() {},
  },
];

export default suite;
