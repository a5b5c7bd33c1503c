/**
 * A failure of the operator's settings or machine that its message explains, with what to do:
 * a port taken, a database or data folder that cannot be used, a setting refused. `npm start` and
 * the commands print the message alone (`Cannot start: …`), not a stack trace; every other error
 * keeps its stack.
 */
export class ExplainedError extends Error {}
