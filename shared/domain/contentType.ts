/** Media types by file extension: those a function's outputs commonly are (video, audio, images, text, data). */
const TYPES: Record<string, string> = {
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
  mkv: 'video/x-matroska',
  avi: 'video/x-msvideo',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  flac: 'audio/flac',
  ogg: 'audio/ogg',
  m4a: 'audio/mp4',
  aac: 'audio/aac',
  opus: 'audio/opus',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  bmp: 'image/bmp',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  svg: 'image/svg+xml',
  ico: 'image/vnd.microsoft.icon',
  json: 'application/json',
  jsonl: 'application/jsonl',
  txt: 'text/plain; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  srt: 'application/x-subrip',
  vtt: 'text/vtt; charset=utf-8',
  html: 'text/html; charset=utf-8',
  xml: 'application/xml',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  md: 'text/markdown; charset=utf-8',
  pdf: 'application/pdf',
  zip: 'application/zip',
  gz: 'application/gzip',
  tar: 'application/x-tar',
};

/** The Content-Type a file is served with, from its name's extension; unknown ones are plain bytes. */
export function contentTypeOf(name: string): string {
  const dot = name.lastIndexOf('.');
  if (dot < 0) return 'application/octet-stream';
  return TYPES[name.slice(dot + 1).toLowerCase()] ?? 'application/octet-stream';
}
