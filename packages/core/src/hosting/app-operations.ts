import { injectable } from "tsyringe";

/** SCAFFOLD (issue 12, in progress): an app's logs, metrics and data reset. */
@injectable()
export class AppOperations {}
