package httpcore

// Version is the SDK's release version, sent in every User-Agent.
const Version = "0.1.0"

// userAgentProduct is the product token that starts the SDK's User-Agent.
const userAgentProduct = "agentapis-sdk-go/" + Version

// userAgent returns the User-Agent for a service: the caller's own product token (if any),
// then the SDK's token, then the service name.
func userAgent(custom, service string) string {
	ua := userAgentProduct + " " + service
	if custom != "" {
		ua = custom + " " + ua
	}
	return ua
}
