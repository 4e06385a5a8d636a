import { injectable } from "tsyringe";

/** SCAFFOLD (issue 12, in progress): a shell in an app's container for its owner. */
@injectable()
export class AppTerminal {}
