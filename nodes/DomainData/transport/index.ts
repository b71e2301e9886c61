/**
 * The one place where the package talks HTTP. Every request of both nodes goes through `apiRequest`
 * (JSON) or `apiStream` (NDJSON body as byte chunks).
 *
 * PROVISIONAL: the signatures are final; retries, error mapping and URL rules are being completed
 * in the Domain issue.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IPollFunctions,
} from 'n8n-workflow';

export type DomainDataFunctions = IExecuteFunctions | ILoadOptionsFunctions | IPollFunctions;

export interface ApiRequest {
	method: 'GET' | 'POST';
	/** Path segments after /json/api/v1, for example ['domain', name]; each one is encoded here. */
	path: string[];
	qs?: Record<string, string | number>;
	body?: IDataObject;
	/** What a 404 means in the words of the operation, e.g. `The domain "x.com" is not in the index`. */
	notFoundMessage?: string;
	/** How many times to try in all before giving up on 429, 5xx and dropped connections. */
	maxAttempts?: number;
	itemIndex?: number;
}

async function baseUrl(this: DomainDataFunctions): Promise<string> {
	const credentials = await this.getCredentials<{ baseUrl: string }>('domainDataApi');
	return credentials.baseUrl.replace(/\/+$/, '').replace(/\/json\/api\/v1$/, '') + '/json/api/v1';
}

function toOptions(root: string, request: ApiRequest): IHttpRequestOptions {
	return {
		method: request.method,
		url: root + '/' + request.path.map(encodeURIComponent).join('/'),
		qs: request.qs,
		body: request.body,
		json: true,
	};
}

export async function apiRequest<T>(this: DomainDataFunctions, request: ApiRequest): Promise<T> {
	const root = await baseUrl.call(this);
	return (await this.helpers.httpRequestWithAuthentication.call(
		this,
		'domainDataApi',
		toOptions(root, request),
	)) as T;
}

/** Opens a streamed GET and returns its body as byte chunks once the service answered 2xx. */
export async function apiStream(
	this: DomainDataFunctions,
	request: ApiRequest,
): Promise<AsyncIterable<Uint8Array>> {
	const root = await baseUrl.call(this);
	const options: IHttpRequestOptions = { ...toOptions(root, request), json: false, encoding: 'stream' };
	return (await this.helpers.httpRequestWithAuthentication.call(
		this,
		'domainDataApi',
		options,
	)) as AsyncIterable<Uint8Array>;
}
