/** `text` matched literally inside a RegExp source (names and terms may hold `.`, `+`, `(`). */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
