import { headings, linksAndImages, plainText, withoutLeadingH1, wordCount } from '../lib/markdown.js';
import { SLUG_MAX, slugify } from '../lib/slug.js';
import { type KeywordRival, rivalWarning } from './keyword-family.js';
import type { Article } from './types.js';

/**
 * The on-page SEO audit of an article (MCP tool audit_article). Pure: the same article always
 * gives the same result. Each check has a weight; the weights add up to 100 and the score is the
 * sum of the weights of the checks that pass.
 */
export interface AuditCheck {
  id: string;
  label: string;
  weight: number;
  passed: boolean;
  /** What was found, and when it failed, what to change. */
  message: string;
}

export interface AuditResult {
  score: number;
  checks: AuditCheck[];
  /** What needs a look but does not change the score: links to articles that are missing or not published, focus-keyword conflicts. */
  warnings: string[];
  stats: {
    wordCount: number;
    targetLength: number;
    titleLength: number;
    metaTitleLength: number;
    metaDescriptionLength: number;
    h2: number;
    h3: number;
    images: number;
    imagesWithoutAlt: number;
    internalLinks: number;
    externalLinks: number;
  };
}

// Common SERP limits: titles up to ~60 characters, descriptions 120-160.
export const LIMITS = { metaTitle: [30, 60], metaDescription: [120, 160], minWords: 300, minH2: 2, wordShare: 0.9 } as const;

// Compared in NFC and lower case, so a keyword typed with decomposed accents or kana still matches.
const fold = (text: string) => text.normalize('NFC').toLowerCase();
const has = (text: string | null | undefined, keyword: string): boolean => !!text && fold(text).includes(fold(keyword));

/** What the audit knows of the article's site: its own origins and where its articles live. */
export interface AuditSite {
  /** The site's own origins (siteUrl, websiteUrl): absolute links to them are internal. */
  origins: string[];
  /** What article URLs start with (siteUrl + contentPath + /); null without a site URL. */
  articlePrefix: string | null;
}

/** A link of the body to one of the site's article URLs, by the slug it names (NFC, lower case). */
export interface ArticleLink {
  href: string;
  slug: string;
}

/** Links to the site's articles checked per audit (each costs a lookup); more are said, not checked. */
export const MAX_CHECKED_ARTICLE_LINKS = 500;

type Audited = Pick<Article, 'title' | 'slug' | 'bodyMarkdown' | 'metaTitle' | 'metaDescription' | 'focusKeyword' | 'targetLength' | 'featuredImageUrl' | 'imageAlt'> & { id?: string };

/**
 * The audit of the body and fields, and the links to the site's articles, which the caller looks
 * up (siteWarnings): the audit runs in a render worker, away from the database.
 */
export function auditArticle(article: Audited, site: AuditSite = { origins: [], articlePrefix: null }): AuditResult & { articleLinks: ArticleLink[] } {
  const body = withoutLeadingH1(stripCode(article.bodyMarkdown));
  const keyword = article.focusKeyword?.trim() || null;
  const seoTitle = article.metaTitle ?? article.title;
  const hs = headings(body);
  const bodyH1s = (body.match(/^#\s+\S/gm) ?? []).length;
  const words = wordCount(body);
  const found = linksAndImages(body);
  const images = found.images;
  // Links to pages: mailto: and tel: autolinks are not links an SEO audit counts.
  const links = found.links.filter((href) => !/^(mailto|tel):/i.test(href));
  const own = (href: string) => !/^[a-z][a-z0-9+.-]*:|^\/\//i.test(href) || site.origins.some((o) => sameOrigin(href, o));
  const external = links.filter((href) => !own(href)).length;
  const internal = links.length - external;
  const articleLinks = site.articlePrefix ? linksToArticles(links.filter(own), site.articlePrefix) : [];
  const warnings: string[] = [];
  const firstParagraph = firstParagraphOf(body);
  const metaDescription = article.metaDescription ?? '';
  const checks: AuditCheck[] = [];
  const add = (id: string, label: string, weight: number, passed: boolean, ok: string, fix: string) => checks.push({ id, label, weight, passed, message: passed ? ok : fix });

  const [tMin, tMax] = LIMITS.metaTitle;
  add('meta_title_length', 'SEO title length', 10, seoTitle.length >= tMin && seoTitle.length <= tMax,
    `SEO title is ${seoTitle.length} characters`,
    `SEO title is ${seoTitle.length} characters; make metaTitle ${tMin}-${tMax} characters${article.metaTitle ? '' : ' (it falls back to the title)'}`);
  const [dMin, dMax] = LIMITS.metaDescription;
  add('meta_description_length', 'Meta description length', 10, metaDescription.length >= dMin && metaDescription.length <= dMax,
    `Meta description is ${metaDescription.length} characters`,
    metaDescription ? `Meta description is ${metaDescription.length} characters; make it ${dMin}-${dMax}` : `No meta description; write one of ${dMin}-${dMax} characters that uses the focus keyword`);
  add('focus_keyword', 'Focus keyword set', 5, !!keyword, `Focus keyword: "${keyword}"`, 'No focus keyword; set focusKeyword to the main search phrase');
  const kw = keyword ?? '';
  const needKw = 'set a focus keyword first';
  add('keyword_in_title', 'Focus keyword in title', 10, !!keyword && (has(article.title, kw) || has(seoTitle, kw)),
    'The title contains the focus keyword', keyword ? `Put "${kw}" in the title` : needKw);
  // Both sides in their derived form (an explicit "café-guide" holds the keyword "Cafe"). A keyword
  // with no letter or digit (emoji, punctuation) has no slug form: "" is in every slug, so it cannot pass.
  const kwSlug = slugify(kw);
  add('keyword_in_slug', 'Focus keyword in slug', 5, !!kwSlug && slugify(article.slug, SLUG_MAX).includes(kwSlug),
    'The slug contains the focus keyword',
    !keyword ? needKw : kwSlug ? `Use a slug containing "${kwSlug}"` : `The focus keyword "${kw}" has no letters or digits to put in a slug; choose a keyword made of words`);
  add('keyword_in_first_paragraph', 'Focus keyword in the first paragraph', 10, !!keyword && has(firstParagraph, kw),
    'The first paragraph uses the focus keyword', keyword ? `Use "${kw}" in the first paragraph` : needKw);
  add('keyword_in_headings', 'Focus keyword in a subheading', 5, !!keyword && hs.some((h) => has(h.text, kw)),
    'A subheading uses the focus keyword', keyword ? `Use "${kw}" in at least one ## or ### heading` : needKw);

  const h2 = hs.filter((h) => h.depth === 2).length;
  const skipped = hs.some((h, i) => h.depth > (i === 0 ? 2 : hs[i - 1].depth + 1));
  const structureProblems = [
    bodyH1s > 0 ? `${bodyH1s} extra H1 heading${bodyH1s > 1 ? 's' : ''} (only the title is an H1: use ## for sections)` : '',
    h2 < LIMITS.minH2 ? `${h2} ## section${h2 === 1 ? '' : 's'} (use at least ${LIMITS.minH2})` : '',
    skipped ? 'a heading level is skipped (e.g. ## followed by ####)' : '',
  ].filter(Boolean);
  add('heading_structure', 'Heading structure', 10, structureProblems.length === 0, `${h2} sections, heading levels in order`, `Fix the headings: ${structureProblems.join('; ')}`);

  const target = article.targetLength > 0 ? Math.ceil(article.targetLength * LIMITS.wordShare) : LIMITS.minWords;
  add('word_count', 'Length', 15, words >= target,
    `${words} words${article.targetLength ? ` (target ${article.targetLength})` : ''}`,
    article.targetLength ? `${words} words, below the target of ${article.targetLength}; write at least ${target}` : `${words} words; write at least ${LIMITS.minWords}`);

  const missingAlt = images.filter((i) => !i.alt).length + (article.featuredImageUrl && !article.imageAlt ? 1 : 0);
  add('image_alt', 'Image alt texts', 10, missingAlt === 0,
    images.length || article.featuredImageUrl ? 'Every image has alt text' : 'No images (alt texts not needed)',
    `${missingAlt} image${missingAlt > 1 ? 's have' : ' has'} no alt text; describe each image (![description](url), imageAlt for the featured image)`);
  add('links', 'Links', 10, links.length > 0, `${internal} internal and ${external} external links`, 'No links; link to at least one related page or source');

  const score = checks.reduce((sum, c) => sum + (c.passed ? c.weight : 0), 0);
  return {
    score,
    checks,
    warnings,
    articleLinks,
    stats: {
      wordCount: words,
      targetLength: article.targetLength,
      titleLength: article.title.length,
      metaTitleLength: seoTitle.length,
      metaDescriptionLength: metaDescription.length,
      h2,
      h3: hs.filter((h) => h.depth === 3).length,
      images: images.length,
      imagesWithoutAlt: missingAlt,
      internalLinks: internal,
      externalLinks: external,
    },
  };
}

function sameOrigin(href: string, origin: string): boolean {
  return URL.canParse(href) && URL.canParse(origin) && new URL(href).origin === new URL(origin).origin;
}

/** The distinct links to the site's article URLs (prefix + one path segment), with the slug each names. */
function linksToArticles(ownLinks: string[], articlePrefix: string): ArticleLink[] {
  const out: ArticleLink[] = [];
  for (const href of new Set(ownLinks)) {
    if (!URL.canParse(href, articlePrefix)) continue;
    const resolved: URL = new URL(href, articlePrefix);
    const full = `${resolved.origin}${resolved.pathname}`;
    if (!full.startsWith(articlePrefix)) continue;
    const rest = full.slice(articlePrefix.length).replace(/\/$/, '');
    if (!rest || rest.includes('/')) continue;
    try {
      out.push({ href, slug: decodeURIComponent(rest).normalize('NFC').toLowerCase() });
    } catch {
      // Not a slug svc could have made: no article to look for.
    }
  }
  return out;
}

/**
 * What needs a look but does not change the score, from what the caller found in the database:
 * links to articles that are missing or not published (`targets`: the articles with the linked
 * slugs), and the articles competing for the focus keyword.
 */
export function siteWarnings(links: ArticleLink[], targets: KeywordRival[], focusKeyword: string | null, rivals: KeywordRival[]): string[] {
  const bySlug = new Map(targets.map((a) => [a.slug.normalize('NFC').toLowerCase(), a]));
  const out: string[] = [];
  for (const { href, slug } of links.slice(0, MAX_CHECKED_ARTICLE_LINKS)) {
    const target = bySlug.get(slug);
    if (!target) out.push(`Link to ${href}: no article of this site has the slug "${slug}" (a broken link once published; link to a published article's url from list_articles)`);
    else if (target.status !== 'published') out.push(`Link to ${href}: the article "${target.slug}" is not published (${target.status}), so the link is broken until it is`);
  }
  if (links.length > MAX_CHECKED_ARTICLE_LINKS) out.push(`Only the first ${MAX_CHECKED_ARTICLE_LINKS} of ${links.length} links to this site's articles were checked`);
  if (focusKeyword && rivals.length > 0) out.push(rivalWarning(focusKeyword, rivals));
  return out;
}

/** Fenced code blocks can hold anything that looks like a heading or a link: ignore them. */
function stripCode(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** Plain text of the first paragraph: the first block of text that is not a heading, image or list. */
function firstParagraphOf(body: string): string {
  for (const block of body.split(/\n\s*\n/)) {
    const text = block.trim();
    if (!text || /^(#|!\[|[-*+]\s|\d+\.\s|>|\||<)/.test(text)) continue;
    return plainText(text.replace(/\s+/g, ' '));
  }
  return '';
}
