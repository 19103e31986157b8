module google.golang.org/genproto/googleapis/api

go 1.21

require (
	google.golang.org/genproto/googleapis/rpc v0.0.0-20240826202546-f6391c0de4c7
	google.golang.org/protobuf v1.34.2
)
