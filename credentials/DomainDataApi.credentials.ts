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
	// feature), and it proves both the key (401) and the address (404 or no answer) with the service's message.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "").replace(/\\/json\\/api\\/v1$/, "")}}/json/api/v1',
			url: '/domain/search',
			method: 'POST',
			body: { pageSize: 1 },
		},
	};
}
