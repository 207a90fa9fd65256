import type { SearchIntent } from './inputs.js';

export type CompetitionLevel = 'LOW' | 'MEDIUM' | 'HIGH';

/** Searches in one calendar month (`2026-10`); the 12-month trend is a list of these, oldest first. */
export interface MonthlySearches {
  month: string;
  searchVolume: number | null;
}

/** What a data provider (or an import) says about one keyword; null where it has no data. */
export interface KeywordMetrics {
  keyword: string;
  searchVolume: number | null;
  /** Average cost per click in USD. */
  cpc: number | null;
  /** Paid-search competition, 0..1. */
  competition: number | null;
  competitionLevel: CompetitionLevel | null;
  /** Keyword difficulty, 0..100: how hard a top-10 organic ranking is. */
  difficulty: number | null;
  intent: SearchIntent | null;
  monthlySearches: MonthlySearches[];
}

/** A keyword as stored for a workspace. */
export interface StoredKeyword extends KeywordMetrics {
  id: string;
  workspaceId: string;
  normalized: string;
  location: string;
  language: string;
  /** Search Console figures, when imported from it. */
  clicks: number | null;
  impressions: number | null;
  position: number | null;
  /** Who gave the metrics shown: `dataforseo`, or the tool an import came from. */
  source: string;
  fetchedAt: string;
  /** Last lookup at the data provider; a lookup within 30 days of it is answered from the store. */
  researchedAt: string | null;
  ideasFetchedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** An article that targets a keyword, and how. */
export interface KeywordTarget {
  articleId: string;
  slug: string;
  title: string;
  status: string;
  role: 'focus' | 'secondary';
}
