/**
 * The variables holding the API keys of well-known model vendors, under the names they document
 * (the ones opencode's providers read): `billing.apiEnv` for a CLI that reaches many vendors, each
 * key billing its vendor's API. Data.
 */
export const MODEL_VENDOR_KEY_ENV = [
  'ANTHROPIC_API_KEY',
  'OPENAI_API_KEY',
  'OPENROUTER_API_KEY',
  'GOOGLE_GENERATIVE_AI_API_KEY',
  'GEMINI_API_KEY',
  'GROQ_API_KEY',
  'DEEPSEEK_API_KEY',
  'XAI_API_KEY',
  'MISTRAL_API_KEY',
  'TOGETHER_API_KEY',
  'FIREWORKS_API_KEY',
  'AZURE_API_KEY',
] as const;
