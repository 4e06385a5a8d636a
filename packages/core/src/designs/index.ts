export type { Design, DesignLayout, DesignLook, DesignPalette, DesignScheme, DesignType, DesignTypography } from "./design.js";
export { DESIGNS, findDesign } from "./catalogue.js";
export { pickDesign, type PickDesignInput } from "./pick-design.js";
export { WCAG_AA_CONTRAST, contrastRatio, parseHexColor, relativeLuminance } from "./contrast.js";
