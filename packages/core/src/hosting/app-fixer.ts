import { injectable } from "tsyringe";

/** SCAFFOLD (issue 12, in progress): POST …/deployment/fix and DELETE …/deployment/override. */
@injectable()
export class AppFixer {}
