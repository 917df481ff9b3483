// The product version, and the privacyIDEA API level whose clients authsrv serves unchanged. Both
// appear in every envelope: `version` as "privacyIDEA <level> (authsrv <version>)", `versionnumber`
// as the API level, because clients compare that number to decide which features they may use.
export const VERSION = '0.1.0';
export const API_LEVEL = '3.13.3';
