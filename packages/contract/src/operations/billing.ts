// Operations of this resource group: see ../operation.ts for the shape.
export {};
