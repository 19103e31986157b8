module k8s.io/ktesting

go 1.26.0
