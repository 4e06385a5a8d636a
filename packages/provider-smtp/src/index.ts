export { createSmtpMailer, type SmtpMailer, type SmtpMailerOptions } from "./smtp-mailer.js";
