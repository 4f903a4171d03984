import { defineConfig } from 'prisma/config';

// The datasource URL is only needed by `prisma migrate`; `prisma generate` works without it.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/mnemo' },
});
