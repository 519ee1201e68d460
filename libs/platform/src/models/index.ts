export * from './embeddings';
