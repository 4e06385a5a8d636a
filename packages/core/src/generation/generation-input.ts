// The generation request and its answer are part of the HTTP contract; core validates with the
// same schema the server does.
export { PLAN_PAGES, generateSchema, type GenerateInput, type GenerationStarted } from "@reposite/contract";
