import { assert, type Case } from "skillgym";

const suite: Case[] = [];

export default suite;
