// The request bodies of `POST /app/sites` and `PATCH /app/sites/{id}` are the contract's: the
// server validates with the same schemas, and the SDK's types come from them.
export { createProjectSchema, updateProjectSchema, type CreateProjectInput, type UpdateProjectInput } from "@reposite/contract";
