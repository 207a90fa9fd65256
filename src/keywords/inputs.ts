import { z } from 'zod';
import { someText } from '../lib/validate.js';
import { keywordLanguage, keywordLocation } from '../workspaces/inputs.js';
import type { Workspace } from '../workspaces/types.js';

// One schema per input, used by the MCP tools (their input schemas are these shapes), the CLI
// and the services alike. Descriptions are written for agents and shown in tools/list.

/** Used when neither the call nor the workspace names a location or language. */
export const FALLBACK_LOCATION = '2840'; // United States
export const FALLBACK_LANGUAGE = 'en';

export const SEARCH_INTENTS = ['informational', 'navigational', 'commercial', 'transactional'] as const;
export type SearchIntent = (typeof SEARCH_INTENTS)[number];

/** Google Ads (the volume source) takes at most 80 characters and 10 words per keyword. */
export const MAX_LOOKUP_KEYWORD_CHARS = 80;
export const MAX_LOOKUP_KEYWORD_WORDS = 10;
/** Stored keywords (imports) may be longer: the column holds 200 characters. */
export const MAX_KEYWORD_CHARS = 200;

const lookupKeyword = someText(MAX_LOOKUP_KEYWORD_CHARS, {
  empty: 'a keyword may not be empty',
  tooLong: `a keyword is at most ${MAX_LOOKUP_KEYWORD_CHARS} characters (Google Ads limit)`,
}).refine((k) => k.split(/\s+/u).length <= MAX_LOOKUP_KEYWORD_WORDS, `a keyword is at most ${MAX_LOOKUP_KEYWORD_WORDS} words (Google Ads limit)`);

const where = {
  location: keywordLocation
    .optional()
    .describe('Location code of the data (2840 United States, 2826 United Kingdom, 2276 Germany) or its name ("United Kingdom"). Default: the workspace setting, else 2840.'),
  language: keywordLanguage.optional().describe('Language code (en, de, fr, es) or name (English). Default: the workspace setting, else en.'),
};

export const keywordResearchFields = {
  keywords: z
    .array(lookupKeyword)
    .min(1, 'give at least one keyword')
    .max(100, 'at most 100 keywords per call')
    .describe('Search phrases to research, e.g. ["cold brew coffee", "iced coffee recipe"]. Up to 100; each up to 80 characters and 10 words.'),
  ...where,
  includeIdeas: z.boolean().optional().describe('Also return related keyword ideas (with the same metrics) for these keywords. Default false.'),
  ideasLimit: z.number().int().min(1).max(100).optional().describe('How many ideas to return, 1-100. Default 20.'),
};
export const keywordResearchInput = z.object(keywordResearchFields);
export type KeywordResearchInput = z.input<typeof keywordResearchInput>;

export const KEYWORD_STATUSES = ['all', 'targeted', 'gaps', 'conflicts', 'untracked'] as const;
export const KEYWORD_SORTS = ['volume', 'difficulty', 'cpc', 'keyword', 'fetched'] as const;

export const keywordListFields = {
  status: z
    .enum(KEYWORD_STATUSES)
    .optional()
    .describe(
      'targeted: an article targets it; gaps: stored keywords no article targets yet; conflicts: two or more articles have it as focus keyword; ' +
        'untracked: keywords articles target that are not stored yet (research them); all (default): every keyword, stored or untracked.',
    ),
  query: someText(MAX_KEYWORD_CHARS).optional().describe('Only keywords containing this text (case-insensitive).'),
  intent: z.enum(SEARCH_INTENTS).optional().describe('Only keywords with this search intent.'),
  minVolume: z.coerce.number().int().min(0).optional().describe('Only keywords with at least this monthly search volume.'),
  maxDifficulty: z.coerce.number().int().min(0).max(100).optional().describe('Only keywords with keyword difficulty at most this (0-100).'),
  location: keywordLocation.optional().describe('Only keywords of this location (as stored, e.g. 2840).'),
  language: keywordLanguage.optional().describe('Only keywords of this language (as stored, e.g. en).'),
  sort: z.enum(KEYWORD_SORTS).optional().describe('Order by volume (default), difficulty, cpc, keyword or fetched (when the data was obtained).'),
  order: z.enum(['asc', 'desc']).optional().describe('Default: desc, except asc for keyword and difficulty.'),
  limit: z.coerce.number().int().min(1).max(500).optional().describe('How many to return, 1-500. Default 50.'),
  offset: z.coerce.number().int().min(0).optional().describe('How many to skip (next page: offset + limit). Default 0.'),
};
export const keywordListInput = z.object(keywordListFields);
export type KeywordListInput = z.input<typeof keywordListInput>;

export const keywordImportOptions = z.object({
  location: keywordLocation.optional(),
  language: keywordLanguage.optional(),
});
export type KeywordImportOptions = z.input<typeof keywordImportOptions>;

export const keywordRemoveInput = z.object({
  keywords: z.array(someText(MAX_KEYWORD_CHARS)).min(1, 'name at least one keyword'),
  location: keywordLocation.optional(),
  language: keywordLanguage.optional(),
});
export type KeywordRemoveInput = z.input<typeof keywordRemoveInput>;

/** The location and language a call uses: its own, else the workspace's, else the fallback. */
export function keywordWhere(ws: Workspace, input: { location?: string; language?: string }): { location: string; language: string } {
  return { location: input.location ?? ws.keywordLocation ?? FALLBACK_LOCATION, language: input.language ?? ws.keywordLanguage ?? FALLBACK_LANGUAGE };
}
