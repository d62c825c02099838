package names

const (
	EC2     = "ec2"
	AttrARN = "arn"
)
