import type { FastifyReply } from 'fastify';
import type { ApiError } from './errors';

export interface Pagination {
  page: number;
  limit: number;
  total: number;
  totalPages: number;
}

export function successBody<T>(data: T): { metadata: { success: true }; data: T } {
  return { metadata: { success: true }, data };
}

export function listBody<T>(data: T[], pagination: Pagination) {
  return { metadata: { success: true as const, pagination }, data };
}

export function errorBody(error: ApiError) {
  return {
    metadata: { success: false as const },
    statusCode: error.statusCode,
    code: error.code,
    message: error.message,
  };
}

export function sendData<T>(reply: FastifyReply, data: T, statusCode = 200): FastifyReply {
  return reply.code(statusCode).send(successBody(data));
}

/** Slices `items` (already filtered and sorted) into the requested page and sends it with its pagination. */
export function sendPage<T>(
  reply: FastifyReply,
  items: readonly T[],
  page: number,
  limit: number,
): FastifyReply {
  const total = items.length;
  const start = (page - 1) * limit;
  return reply.code(200).send(
    listBody(items.slice(start, start + limit), {
      page,
      limit,
      total,
      totalPages: Math.ceil(total / limit),
    }),
  );
}

/** Sends one already-cut page whose filter matched `total` items. */
export function sendPageOf<T>(
  reply: FastifyReply,
  pageItems: readonly T[],
  page: number,
  limit: number,
  total: number,
): FastifyReply {
  return reply
    .code(200)
    .send(listBody([...pageItems], { page, limit, total, totalPages: Math.ceil(total / limit) }));
}
