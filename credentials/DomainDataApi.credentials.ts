import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

// resolveBaseUrl's rules (transport/request.ts; credential.test.ts checks that they agree) as an n8n expression that
// refuses before anything is sent: `extend` on null throws an error named after its second argument.
const BASE_URL_EXPRESSION = [
	'={{ (() => {',
	'const refuse = (problem) => extend(null, problem + ". The Test sent nothing: this Base URL", []);',
	'const text = typeof $credentials.baseUrl === "string" ? $credentials.baseUrl.trim() : "";',
	'if (!text) return refuse("The Base URL of the Domain Data credential is empty");',
	'if (!/^[a-z][a-z0-9+.-]*:\\/\\//i.test(text)) return refuse("The Base URL \\"" + text + "\\" of the Domain Data ' +
		'credential must start with https:// or http://");',
	// No URL class in n8n's expressions: the address is taken apart as the URL standard does for these rules.
	'const parts = /^([a-z][a-z0-9+.-]*):\\/\\/([^\\/?#]*)([^?#]*)(\\?[^#]*)?(#.*)?$/i.exec(text);',
	'const authority = parts ? parts[2] : "";',
	'const hostPort = authority.slice(authority.lastIndexOf("@") + 1);',
	'const hostParts = /^([^\\s:@\\/]+|\\[[0-9a-f:.]+\\])(?::(\\d{0,5}))?$/i.exec(hostPort);',
	'if (!parts || /\\s/.test(text) || !hostParts || Number(hostParts[2] || 0) > 65535) return refuse("The Base URL ' +
		'\\"" + text + "\\" of the Domain Data credential is not a valid address");',
	'const protocol = parts[1].toLowerCase() + ":";',
	'if (protocol !== "http:" && protocol !== "https:") return refuse("The Base URL of the Domain Data credential must ' +
		'start with https:// or http:// (it starts with " + protocol + "//)");',
	'if (authority.includes("@")) return refuse("The Base URL of the Domain Data credential must not contain a user ' +
		'name or password");',
	'const port = hostParts[2] && Number(hostParts[2]) !== (protocol === "https:" ? 443 : 80) ? ":" + ' +
		'Number(hostParts[2]) : "";',
	'const origin = protocol + "//" + hostParts[1].toLowerCase() + port;',
	'const path = parts[3] || "/";',
	'if ((parts[4] || "").length > 1 || (parts[5] || "").length > 1) return refuse("The Base URL \\"" + origin + path ' +
		'+ "\\" of the Domain Data credential must not contain a query (?...) or a fragment (#...)");',
	'return origin + path.replace(/\\/+$/, "").replace(/\\/json\\/api\\/v1$/i, "").replace(/\\/+$/, "") + ' +
		'"/json/api/v1";',
	'})() }}',
].join(' ');

const redirectMessage = (status: number) =>
	`The Base URL redirects to another address (${status}). The Test does not follow redirects, so that the API key ` +
	`stays with the address entered: enter the address the service answers at.`;

// n8n's credential test shows no text of the service, so each status gets a message that says what to fix.
const TEST_MESSAGES: Array<[status: number, message: string]> = [
	[401, 'The service rejected the API key (401). Check the API Key.'],
	[402, 'The API key works, but the request credits of the account are used up for this month (402).'],
	[403, 'The API key works, but the plan does not allow domain searches (403).'],
	[
		404,
		'No Domain Data service answers at this Base URL (404). Enter the address of the service, e.g. ' +
			'https://api.domain-data.example.',
	],
	[429, 'The service is rate limiting this API key right now (429). Try again in a moment.'],
	...[301, 302, 303, 307, 308].map((status): [number, string] => [status, redirectMessage(status)]),
];

export class DomainDataApi implements ICredentialType {
	name = 'domainDataApi';

	displayName = 'Domain Data API';

	icon: Icon = {
		light: 'file:../nodes/DomainData/domainData.svg',
		dark: 'file:../nodes/DomainData/domainData.dark.svg',
	};

	documentationUrl = 'https://github.com/domain-data/n8n-nodes-domain-data#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'The bearer API key from your Domain Data account',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.domain-data.example',
			description:
				'Address of the service, for example https://api.domain-data.example. A trailing slash or a trailing ' +
				'/json/api/v1 is accepted.',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: { headers: { Authorization: '=Bearer {{$credentials.apiKey}}' } },
	};

	// A one-result search is the cheapest call every plan may make. No redirect is followed: n8n's would send the key.
	test: ICredentialTestRequest = {
		request: {
			baseURL: BASE_URL_EXPRESSION,
			disableFollowRedirect: true,
			sendCredentialsOnCrossOriginRedirect: false,
			url: '/domain/search',
			method: 'POST',
			body: { pageSize: 1 },
		},
		rules: TEST_MESSAGES.map(([value, message]) => ({ type: 'responseCode', properties: { value, message } })),
	};
}
