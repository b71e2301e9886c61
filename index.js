// n8n loads the nodes and the credential through the "n8n" attribute of package.json;
// this file only exists so that `require('n8n-nodes-domain-data')` resolves.
module.exports = {};
