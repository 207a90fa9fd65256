import type { Ctx } from '../context.js';
import type { Trx } from '../db/connect.js';
import type { Article } from '../articles/types.js';
import type { Workspace } from '../workspaces/types.js';
import type { Publication } from './publications.js';

// PLACEHOLDER (issue 3 fills this in): compute and store the headless snapshot.
export async function writeSnapshot(_trx: Trx, _ctx: Ctx, _ws: Workspace, _article: Article, _publication: Publication): Promise<void> {}

export async function removeSnapshot(_trx: Trx, _articleId: string): Promise<void> {}
