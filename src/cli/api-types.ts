// The shapes of the REST answers the CLI reads (docs/api.md).

/** The /v1 error envelope (docs/api.md "Errors"); extra fields ride at the top level. */
export interface ErrorBody {
  success: false;
  message?: string;
  error?: { type?: string; code?: string; message?: string; param?: string | null; docs?: string };
  currentCredits?: number;
  requiredCredits?: number;
  reason?: string;
  category?: string;
}

/** Every image operation answers this envelope. */
export interface ToolEnvelope<R = Record<string, unknown>> {
  success: true;
  message: string;
  deductedCredits: number;
  userCredits: number;
  result: R & { deductedCredits: number; userCredits: number };
}

export interface BatchItem {
  tool: string;
  status: number;
  success: boolean;
  data: ToolEnvelope | ErrorBody;
}

export interface BatchEnvelope {
  success: boolean;
  message: string;
  count: number;
  totalLatency: string;
  deductedCredits: number;
  userCredits: number;
  results: BatchItem[];
}

export interface Account {
  id: string;
  name: string;
  email: string;
  plan: string;
  credits: number;
  [field: string]: unknown;
}

export interface MeBody {
  success: true;
  user: Account;
  authMethod: string;
}

export interface Model {
  modelId: string;
  name: string;
  description: string;
  provider: string;
  costPerReq: number;
  priority: number;
  isLive: boolean;
}

export interface ModelsBody {
  success: true;
  count: number;
  models: Model[];
}

export interface UsageEntry {
  id: string;
  model: string;
  prompt: string;
  status: string;
  latency: string;
  creditsDeducted: number;
  creditsRefunded: number;
  tool: string;
  source: string;
  keyPrefix: string;
  requestId: string;
  createdAt: string;
}

export interface UsageBody {
  success: true;
  count: number;
  logs: UsageEntry[];
}
