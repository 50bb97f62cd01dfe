import { Injectable } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';

/** Holds the OpenAPI document {@link configureGatewayApp} builds once the app's routes exist. */
@Injectable()
export class OpenApiDocumentHolder {
  private current: OpenAPIObject | undefined;

  set(document: OpenAPIObject): void {
    this.current = document;
  }

  get document(): OpenAPIObject | undefined {
    return this.current;
  }
}
