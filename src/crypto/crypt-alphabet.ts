// The alphabet of crypt(3), SHA-crypt and phpass (bcrypt uses its own order, handled by bcryptjs).
export const ITOA64 = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
