/** What an API handler receives once the request passed faults, authentication, plan and credits. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KeyState } from '../auth';
import type { RequestLogEntry } from '../log';
import type { SimulatorState } from '../state';

export interface ApiContext {
	req: IncomingMessage;
	res: ServerResponse;
	state: SimulatorState;
	entry: RequestLogEntry;
	key: KeyState;
	/** Decoded path parameter (domain name or snapshot label), when the route has one. */
	param?: string;
	url: URL;
	/** Parsed JSON body (undefined without a body). */
	body: unknown;
}
