// Invisible characters that change how the text around them is ordered (U+061C, U+200E/F,
// U+202A-U+202E embeddings and overrides, U+2066-U+2069 isolates): in a name another party
// chose, "Trusted\u202Eexe.doc" reads as "Trustedcod.exe". Refused where such a name is
// registered, and removed where one stored earlier is shown.
export const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export const hasBidiControls = (s: string): boolean => new RegExp(BIDI_CONTROLS.source).test(s);

export const withoutBidiControls = (s: string): string => s.replace(BIDI_CONTROLS, '');
