/** Splits long text on sentence boundaries into chunks of at most `maxChars` (long episodes are chunked). */
export function chunkText(text: string, maxChars = 4000): string[] {
  if (text.length <= maxChars) return [text];
  const sentences = text.match(/[^.!?\n]+[.!?]*\s*|\n+/g) ?? [text];
  const chunks: string[] = [];
  let current = '';
  for (const sentence of sentences) {
    if (current.length + sentence.length > maxChars && current.trim()) {
      chunks.push(current.trim());
      current = '';
    }
    // A single sentence longer than the limit is cut hard.
    for (let s = sentence; s.length > 0; s = s.slice(maxChars)) {
      if (s.length > maxChars) chunks.push(s.slice(0, maxChars));
      else current += s;
      if (s.length <= maxChars) break;
    }
  }
  if (current.trim()) chunks.push(current.trim());
  return chunks;
}
