import type { Ctx } from '../context.js';
import { AppError } from '../errors.js';
import { createDataForSeoProvider } from './dataforseo.js';
import type { KeywordMetrics } from './types.js';

/** One lookup at a keyword data provider: metrics for `keywords`, ideas for the `ideasFor` seeds. */
export interface ProviderLookup {
  keywords: string[];
  ideasFor: string[];
  ideasLimit: number;
  location: string;
  language: string;
}

export interface ProviderResult {
  /** One entry per keyword asked (metrics null where the provider has no data). */
  metrics: KeywordMetrics[];
  ideas: KeywordMetrics[];
}

/** A keyword data provider. Another one is added by implementing this and naming it in PROVIDERS. */
export interface KeywordProvider {
  /** As in the config and stored as the keywords' source, e.g. `dataforseo`. */
  readonly id: string;
  /** For people, e.g. `DataForSEO`. */
  readonly name: string;
  lookup(request: ProviderLookup): Promise<ProviderResult>;
}

const PROVIDERS: Record<string, (ctx: Ctx) => KeywordProvider> = {
  dataforseo: createDataForSeoProvider,
};

/** The configured provider (keywords.provider), or a refusal saying how the operator enables one. */
export function keywordProvider(ctx: Ctx): KeywordProvider {
  const make = PROVIDERS[ctx.config.keywords.provider];
  if (!make) {
    throw new AppError(
      'keyword_provider_not_configured',
      409,
      'Keyword lookups are off: no keyword data provider is configured. The operator enables DataForSEO with keywords.provider: dataforseo and its API login and password (SVC_KEYWORDS_PROVIDER=dataforseo, SVC_KEYWORDS_DATAFORSEO_LOGIN, SVC_KEYWORDS_DATAFORSEO_PASSWORD). Stored and imported keywords still list.',
      { hint: 'See docs/keywords.md, "Setup".' },
    );
  }
  return make(ctx);
}
