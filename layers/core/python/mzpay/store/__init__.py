"""DynamoDB repositories, conditional writes and other AWS storage."""
