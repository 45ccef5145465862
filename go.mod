module github.com/agentapis/sdk

go 1.24

require (
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.8 // indirect
	github.com/jarcoal/httpmock v1.4.2 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
)
