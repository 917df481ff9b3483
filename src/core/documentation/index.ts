// GET /system/documentation: the whole configuration as one reStructuredText document.
export { documentation } from './documentation.ts';
