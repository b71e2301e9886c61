import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

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
				'Address of the service, for example https://api.domain-data.example. A trailing slash or a trailing /json/api/v1 is accepted.',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '=Bearer {{$credentials.apiKey}}',
			},
		},
	};

	// A one-result search is the cheapest call every plan may make (the dataset list needs the historical
	// feature). The base URL follows the rules of the transport (transport/baseUrl.ts): surrounding spaces,
	// trailing slashes and a trailing /json/api/v1 are tolerated. n8n's credential test shows no text of the
	// service; the rules give each status a message that says what to fix (n8n versions that do not keep the
	// HTTP response on the error, such as 2.8, show their own text per status instead: still distinct).
	test: ICredentialTestRequest = {
		request: {
			baseURL:
				'={{$credentials.baseUrl.trim().replace(/\\/+$/, "").replace(/\\/json\\/api\\/v1$/i, "").replace(/\\/+$/, "")}}/json/api/v1',
			url: '/domain/search',
			method: 'POST',
			body: { pageSize: 1 },
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message: 'The service rejected the API key (401). Check the API Key.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 402,
					message:
						'The API key works, but the request credits of the account are used up for this month (402).',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 403,
					message: 'The API key works, but the plan does not allow domain searches (403).',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message:
						'No Domain Data service answers at this Base URL (404). Enter the address of the service, e.g. https://api.domain-data.example.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 429,
					message: 'The service is rate limiting this API key right now (429). Try again in a moment.',
				},
			},
		],
	};
}
