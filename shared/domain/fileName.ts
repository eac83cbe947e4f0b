/** `Content-Disposition` for a download saved under the file's own name, with quotes and line breaks made harmless. */
export const attachmentDisposition = (name: string) => `attachment; filename="${name.replace(/["\\\r\n]/g, '_')}"`;
